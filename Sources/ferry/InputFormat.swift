import ArgumentParser

/// What `ferry enqueue --from` reads.
enum InputFormat: String, ExpressibleByArgument, CaseIterable {
    /// One JSON object per line, each a whole job.
    case jsonl
    /// One source per line (a path to upload, a URL or source to fetch); the rest comes from the flags.
    case lines
}
