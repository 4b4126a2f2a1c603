// The one version string of the package, which `strata --version` and
// `strata-sync-hub --version` print.

/// Strata's version.
public enum StrataVersion {
    /// The version of this build of Strata (semantic versioning; `-dev` until it is tagged).
    public static let current = "1.0.0-dev"
}
