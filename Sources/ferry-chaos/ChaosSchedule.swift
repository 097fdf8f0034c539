/// When each fault of the run happens, drawn from the seed before anything starts.
struct ChaosSchedule: Sendable {
    enum Kind: Sendable, Equatable {
        /// Enqueue the jobs of wave N.
        case enqueue(wave: Int)
        /// kill -9 a random worker; it comes back after `restartDelay` seconds, under a new name or the same.
        case kill(restartDelay: Double, newName: Bool)
        /// Restart PostgreSQL with a fast shutdown (same data directory and port).
        case restartPostgres
        /// SIGKILL the dev server and start it again on the same port and storage.
        case restartDevServer
        /// Pause a worker holding jobs with SIGSTOP until others took them over, then SIGCONT it.
        case zombie
        /// Black-hole PostgreSQL's TCP port (the partitioned worker's path; the others use its socket).
        case partitionDatabase
        /// Black-hole the dev server's port: every worker's transfers go silent.
        case partitionProvider
        /// Fill the fetch destinations' file system, then free it.
        case fillDisk
    }

    struct Action: Sendable {
        var at: Double
        var kind: Kind
    }

    let actions: [Action]
    let waves: Int

    /// Share of the chaos over which jobs are enqueued.
    static let enqueueShare = 0.75

    init(settings: ChaosSettings) {
        var random = SeededGenerator.stream(settings.seed, "schedule")
        let duration = settings.duration
        var actions: [Action] = []
        // A wave about every 5 seconds over the first 75% (at most 30 waves).
        waves = max(2, min(30, Int(duration * Self.enqueueShare / 5)))
        for wave in 0..<waves {
            actions.append(Action(at: Double(wave) * duration * Self.enqueueShare / Double(waves), kind: .enqueue(wave: wave)))
        }
        var time = settings.killEvery * random.uniform(0.6...1.4)
        while time < duration {
            actions.append(Action(at: time, kind: .kill(restartDelay: random.uniform(0.3...1.5), newName: Bool.random(using: &random))))
            time += settings.killEvery * random.uniform(0.6...1.4)
        }
        // Restarts spread over the busy middle of the run, each in the middle 60% of a slice of its own (so two
        // restarts are never back to back).
        func spread(_ count: Int, from start: Double, to end: Double) -> [Double] {
            let slice = (end - start) / Double(max(1, count))
            return (0..<count).map { index in
                let low = start + slice * Double(index)
                return duration * random.uniform((low + 0.2 * slice)...(low + 0.8 * slice))
            }
        }
        for at in spread(settings.pgRestarts, from: 0.2, to: 0.85) { actions.append(Action(at: at, kind: .restartPostgres)) }
        for at in spread(settings.devServerRestarts, from: 0.3, to: 0.85) { actions.append(Action(at: at, kind: .restartDevServer)) }
        if settings.zombie {
            actions.append(Action(at: duration * random.uniform(0.15...0.3), kind: .zombie))
        }
        if settings.partition {
            // One after the other, never overlapping: each fault's cost shows on its own.
            actions.append(Action(at: duration * 0.12, kind: .partitionDatabase))
            actions.append(Action(at: duration * 0.12 + settings.partitionSeconds * 1.5, kind: .partitionProvider))
            if !settings.fillDirectory.isEmpty {
                actions.append(Action(at: duration * 0.12 + settings.partitionSeconds * 3, kind: .fillDisk))
            }
        }
        self.actions = actions.sorted { $0.at < $1.at }
    }
}
