/// Throughput over the last few seconds (bytes and jobs per second), for the progress rate and ETA.
struct RateEstimator {
    private struct Sample {
        var at: ContinuousClock.Instant
        var bytes: Int64
        var jobs: Int64
    }

    /// How far back the rate looks: long enough to smooth bursts, short enough to follow changes.
    let window: Duration
    private var samples = [Sample]()

    init(window: Duration = .seconds(10)) {
        self.window = window
    }

    mutating func add(at instant: ContinuousClock.Instant, bytes: Int64, jobs: Int64) {
        samples.append(Sample(at: instant, bytes: bytes, jobs: jobs))
        // Keep one sample at or before the window's start, so the rate always spans the whole window.
        while samples.count > 2 && samples[1].at <= instant - window {
            samples.removeFirst()
        }
    }

    var bytesPerSecond: Double? { rate(\.bytes) }
    /// Time between the oldest and newest readings kept.
    var span: Duration { (samples.last?.at).map { $0 - samples[0].at } ?? .zero }
    var jobsPerSecond: Double? { rate(\.jobs) }

    private func rate(_ value: KeyPath<Sample, Int64>) -> Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        let span = last.at - first.at
        // Below half a second the figure is mostly noise.
        guard span >= .milliseconds(500) else { return nil }
        let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
        return max(0, Double(last[keyPath: value] - first[keyPath: value]) / seconds)
    }
}
