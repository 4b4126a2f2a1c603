// Squeal's names over Strata: code written for Squeal ports by changing `import Squeal` to
// `import StrataSqueal`.
@_exported import Strata
