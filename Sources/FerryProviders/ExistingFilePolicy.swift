import FerryCore

/// What a fetch does when its local target already exists: the `existing` option, taken by every fetch provider
/// (`--ignore-existing` and `--immutable` on the command line, as rclone has them).
public enum ExistingFilePolicy: String, Sendable, CaseIterable {
    /// Write the new file in its place (the default).
    case replace
    /// Leave a file that is there alone and download nothing (whatever its content).
    case ignore
    /// Never replace a different file: the job fails (`destination_exists`); the same content is kept as it is.
    case immutable

    /// The option every fetch provider takes (the registry declares it for them).
    public static let option: TypedProviderOption<String> = .choice(
        "existing", allCases.map(\.rawValue),
        help: "Fetches: what to do with a file already at the target: replace (default), ignore (keep it, download nothing), immutable (fail rather than replace a different file).")

    /// The spec key the policy travels under (also into a folder's children).
    public static let specKey = "existing"
}
