import FerryCore

/// The chaos runs' generator: one printed seed replays the same schedule and the same file contents.
typealias SeededGenerator = SplitMix64
