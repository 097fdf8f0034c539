import FerryCore

/// The jobs named on the command line (`ferry enqueue upload FILE|DIR… --to DEST`, `fetch SOURCE… --to PATH`), for
/// the streaming enqueue: a directory with `recursive` becomes one job per file below it.
struct CommandLineJobs: Sendable {
    var kind: JobKind
    var operands: [String]
    var to: String
    /// Upload: walk directories, keeping each file's path below DIR under DEST (which ends with `/`).
    var recursive: Bool
    /// The request for one source and destination, with the command line's options.
    var make: @Sendable (_ source: String, _ to: String) -> JobRequest
}
