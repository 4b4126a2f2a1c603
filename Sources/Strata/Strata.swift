// `import Strata` brings the whole library: the kernel and the layers on it (StrataCore), and the
// capabilities built beside them as targets of their own, so SwiftPM, not a script, keeps each of
// them from reaching into another's internals.
@_exported import StrataChangesets
@_exported import StrataCore
@_exported import StrataFullTextSearch
@_exported import StrataReplication
@_exported import StrataVectors
