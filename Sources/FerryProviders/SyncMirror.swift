import FerryCore

/// A sync (`ferry enqueue sync SRC --to DEST/`): the folder copy or tree upload of SRC into DEST/, then the deletion
/// of the files DEST/ holds that SRC no longer has (after the job's filter), once every copy of the run succeeded.
/// The option's value is the most files one run may delete (`--max-delete`), -1 for no bound. Every upload and copy
/// provider takes it (the registry declares it); a job of one file refuses it.
public enum SyncMirror {
    public static let option: TypedProviderOption<Int64> = .integer(
        "sync", -1...1_000_000_000,
        help: "Tree uploads and folder copies: also delete what the destination folder holds that the source no longer has (after the filters), once the run's copies succeeded; the value is the most files to delete (--max-delete), -1 for no bound.")

    /// The spec key the sync travels under: `{"max_delete": N}` (no member: no bound).
    public static let specKey = "sync"

    /// The spec value for `maxDelete` (-1: no bound).
    public static func details(maxDelete: Int64) -> JSONValue {
        maxDelete < 0 ? .object([:]) : .object(["max_delete": .int(maxDelete)])
    }
}
