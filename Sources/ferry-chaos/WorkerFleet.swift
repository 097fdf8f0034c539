import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The worker processes: one per slot, killed with SIGKILL and restarted (under the same name, so its own
/// heartbeat releases what it held, or under a new one, so another worker rescues it), or paused with SIGSTOP.
actor WorkerFleet {
    struct Slot {
        var name: String
        var incarnation = 0
        var process: ManagedProcess?
        var paused = false
        /// Not killed before this (a resumed zombie must live to show its late writes being refused).
        var protectedUntil = Date.distantPast
    }

    /// What happened to the fleet, for the report.
    struct Tally: Sendable {
        var kills = 0
        var restartsSameName = 0
        var restartsNewName = 0
    }

    let ferry: String
    let environment: [String: String]
    let logDirectory: String
    let arguments: [String]
    /// Environment variables of one slot's processes only (the partitioned worker's database URL).
    let slotEnvironment: [Int: [String: String]]
    private var slots: [Slot]
    private(set) var tally = Tally()
    /// Workers that died without being killed.
    private(set) var crashes: [String] = []
    /// Every process ever started, by worker name (a name restarted after a kill has several).
    private(set) var logsByName: [String: [String]] = [:]
    private var stopped = false

    init(
        count: Int, ferry: String, environment: [String: String], logDirectory: String, slotEnvironment: [Int: [String: String]] = [:],
        arguments: [String]
    ) {
        self.slotEnvironment = slotEnvironment
        self.ferry = ferry
        self.environment = environment
        self.logDirectory = logDirectory
        self.arguments = arguments
        slots = (0..<count).map { Slot(name: "chaos-w\($0 + 1)-1") }
    }

    var count: Int { slots.count }

    func startAll() throws {
        for index in slots.indices { try start(index) }
    }

    private func start(_ index: Int) throws {
        slots[index].incarnation += 1
        let name = slots[index].name
        let logPath = logDirectory + "/worker-\(name)-\(slots[index].incarnation).log"
        slots[index].process = try ManagedProcess(
            label: name, executable: ferry, arguments: ["worker", "--name", name] + arguments,
            environment: environment.merging(slotEnvironment[index] ?? [:]) { $1 }, logPath: logPath)
        slots[index].paused = false
        logsByName[name, default: []].append(logPath)
    }

    /// Slots that may be killed now: running, not paused, not protected.
    func killable() -> [Int] {
        slots.indices.filter {
            slots[$0].process?.isRunning == true && !slots[$0].paused && slots[$0].protectedUntil < Date()
        }
    }

    /// kill -9; returns the name killed.
    func kill9(_ index: Int) async -> String? {
        guard let process = slots[index].process, process.isRunning, !slots[index].paused else { return nil }
        // Forgotten before the signal, so `reapCrashed` never takes our own kill for a crash.
        slots[index].process = nil
        process.signal(SIGKILL)
        _ = await process.waitForExit(timeout: 10)
        tally.kills += 1
        return slots[index].name
    }

    /// Workers that exited although nobody stopped them (a crash: a bug) are recorded and started again.
    func reapCrashed() throws {
        guard !stopped else { return }
        for index in slots.indices {
            guard let process = slots[index].process, !process.isRunning else { continue }
            crashes.append("\(slots[index].name) exited with status \(process.exitStatus ?? -1) on its own; log: \(process.logPath)")
            slots[index].process = nil
            try start(index)
        }
    }

    /// Starts a killed slot again, under a new name or the same one.
    func restart(_ index: Int, newName: Bool) throws {
        guard !stopped, slots[index].process == nil else { return }
        if newName {
            let base = slots[index].name.split(separator: "-").dropLast().joined(separator: "-")
            let generation = (Int(slots[index].name.split(separator: "-").last ?? "") ?? 1) + 1
            slots[index].name = "\(base)-\(generation)"
            tally.restartsNewName += 1
        } else {
            tally.restartsSameName += 1
        }
        try start(index)
    }

    /// Current worker names by slot, and whether each runs.
    func names() -> [(index: Int, name: String, running: Bool, paused: Bool)] {
        slots.indices.map { (index: $0, name: slots[$0].name, running: slots[$0].process?.isRunning == true, paused: slots[$0].paused) }
    }

    func process(_ index: Int) -> ManagedProcess? { slots[index].process }

    func pause(_ index: Int) -> Bool {
        guard let process = slots[index].process, process.isRunning, !slots[index].paused else { return false }
        process.signal(SIGSTOP)
        slots[index].paused = true
        return true
    }

    func resume(_ index: Int, protectFor seconds: Double) {
        slots[index].process?.signal(SIGCONT)
        slots[index].paused = false
        slots[index].protectedUntil = Date().addingTimeInterval(seconds)
    }

    /// Not killed for `seconds` (the partitioned worker, so that it lives through its partition).
    func protect(_ index: Int, for seconds: Double) {
        slots[index].protectedUntil = Date().addingTimeInterval(seconds)
    }

    func unprotect(_ index: Int) {
        slots[index].protectedUntil = .distantPast
    }

    /// Every slot running again (after the chaos): slots killed and not yet restarted come back.
    func ensureAllRunning() throws {
        for index in slots.indices {
            if slots[index].paused { resume(index, protectFor: 0) }
            if slots[index].process?.isRunning != true {
                slots[index].process = nil
                try start(index)
            }
        }
    }

    /// SIGTERM to every worker; their exit statuses (nil: still running after the timeout, then killed).
    func stopAll(timeout: Double) async -> [(name: String, status: Int32?)] {
        try? reapCrashed()
        stopped = true
        for slot in slots { slot.process?.signal(SIGTERM) }
        var statuses: [(name: String, status: Int32?)] = []
        for slot in slots {
            guard let process = slot.process else { continue }
            let status = await process.waitForExit(timeout: timeout)
            if status == nil { process.signal(SIGKILL) }
            statuses.append((slot.name, status))
        }
        return statuses
    }

    /// Kills whatever still runs (the run failed half way).
    func killAll() {
        stopped = true
        for slot in slots {
            slot.process?.signal(SIGCONT)
            slot.process?.signal(SIGKILL)
        }
    }
}
