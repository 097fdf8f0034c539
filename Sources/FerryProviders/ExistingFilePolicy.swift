import FerryCore

/// What a job does when a file is already where it writes: the `existing` option, taken by every fetch, upload and
/// copy (`--ignore-existing` and `--immutable` on the command line, as rclone has them).
public enum ExistingFilePolicy: String, Sendable, CaseIterable {
    /// Write the new file in its place (the default). A fetch replaces the local file; an upload or a copy that
    /// compares first (`if_changed`: the default for tree uploads and copies) writes a changed file as a new
    /// version of the one it saw, never a second file beside it.
    case replace
    /// Leave a file that is there alone and transfer nothing (whatever its content).
    case ignore
    /// Never replace a different file: the job fails (`destination_exists`); the same content is kept as it is.
    case immutable

    /// The option every provider takes for fetches, uploads and copies (the registry declares it for them).
    public static let option: TypedProviderOption<String> = .choice(
        "existing", allCases.map(\.rawValue),
        help: "What to do with a file already at the destination: replace (default; uploads and copies replace a changed file where they compare, as if_changed does), ignore (keep it, transfer nothing), immutable (fail rather than replace a different file).")

    /// The spec key the policy travels under (also into a folder's or a tree's children).
    public static let specKey = "existing"
}
