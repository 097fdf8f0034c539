/// What this build of Ferry is, for `ferry --version` and for checking a database against the code.
public enum FerryRelease {
    /// The release, in semantic-version form.
    public static let version = "0.2.0"
    /// The highest migration this build ships and expects to have been applied (`migrations/NNNN_*.sql`).
    /// A test keeps it equal to the newest file in `migrations/`.
    public static let schemaVersion = 43

    /// `ferry 0.2.0 (schema 28)`.
    public static var description: String { "ferry \(version) (schema \(schemaVersion))" }
}
