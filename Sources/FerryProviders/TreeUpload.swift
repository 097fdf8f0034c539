import FerryCore

/// An upload whose source is a folder, walked by the worker when the job runs (`--option tree=true`, and what a
/// schedule of `upload DIR --recursive` enqueues each tick): one child upload per file below it, keeping its path
/// under the destination folder. Every upload provider takes it (the registry declares it for them).
public enum TreeUpload {
    public static let option: TypedProviderOption<Bool> = .boolean(
        "tree",
        help: "Uploads: the source is a folder that a worker walks when the job runs, one upload per file below it keeping its path under the destination folder (what a schedule of upload DIR --recursive enqueues); files already uploaded unchanged are not enqueued again.")

    /// The spec key a tree job carries.
    public static let specKey = "tree"
}
