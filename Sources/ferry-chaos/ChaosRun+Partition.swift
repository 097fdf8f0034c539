import Foundation

/// The partition phase: faults that do not answer. Each lasts `--partition-seconds`, then heals.
extension ChaosRun {
    /// Black-holes PostgreSQL's TCP port, the path of worker slot 0 alone (the others and this run use the
    /// socket): its heartbeats and records go unanswered, its lease lapses, the others rescue its jobs, and it must
    /// not commit what it was uploading. It is not killed meanwhile, so it lives through its partition.
    func partitionDatabase() async {
        let seconds = settings.partitionSeconds
        await fleet.protect(0, for: seconds + settings.rescueAfter + 60)
        let name = await fleet.names().first?.name ?? "?"
        let held = (try? await database.value(
            "SELECT count(*) FROM ferry.jobs WHERE state = 'running' AND worker = $1", [name])) ?? "?"
        do {
            try PartitionControl.blackHole(port: pgPort)
        } catch {
            actionErrors.append("\(error)")
            return
        }
        say("partition: PostgreSQL black-holed under \(name) (holding \(held) job(s)) for \(ChaosSettings.number(seconds)) s")
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        PartitionControl.heal(port: pgPort)
        let rescued = (try? await database.value(
            "SELECT count(*) FROM ferry.events WHERE type = 'rescued' AND recorded_at > now() - make_interval(secs => $1)", [seconds + 5])) ?? "?"
        partitionNotes.append("PostgreSQL black-holed under \(name) \(ChaosSettings.number(seconds)) s (held \(held) job(s); \(rescued) rescue(s) meanwhile)")
        say("partition: PostgreSQL reachable again from \(name); \(rescued) job(s) rescued meanwhile")
    }

    /// Black-holes the dev server for every worker: transfers stall mid-body and new connections never connect.
    func partitionProvider() async {
        let seconds = settings.partitionSeconds
        let port = await dev.port
        let before = (try? await database.value("SELECT count(*) FROM ferry.events WHERE type = 'retry_scheduled'")) ?? "0"
        do {
            try PartitionControl.blackHole(port: port)
        } catch {
            actionErrors.append("\(error)")
            return
        }
        say("partition: the dev server black-holed for every worker for \(ChaosSettings.number(seconds)) s")
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        PartitionControl.heal(port: port)
        let after = (try? await database.value("SELECT count(*) FROM ferry.events WHERE type = 'retry_scheduled'")) ?? "0"
        let retries = (Int(after) ?? 0) - (Int(before) ?? 0)
        partitionNotes.append("dev server black-holed \(ChaosSettings.number(seconds)) s (\(retries) retries meanwhile)")
        say("partition: the dev server reachable again; \(retries) retries scheduled meanwhile")
    }

    /// Fills the fetch destinations' file system to the last block, then frees it: fetches writing then meet
    /// ENOSPC and are deferred (`no_space`), and finish once there is room again.
    func fillDisk() async {
        let seconds = settings.partitionSeconds
        let filled: (String, Int64)
        do {
            filled = try PartitionControl.fill(settings.fillDirectory)
        } catch {
            actionErrors.append("\(error)")
            return
        }
        say(String(format: "partition: %@ filled (%.0f MiB) for %@ s", settings.fillDirectory, Double(filled.1) / 1_048_576,
                   ChaosSettings.number(seconds)))
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        try? FileManager.default.removeItem(atPath: filled.0)
        let deferred = (try? await database.value(
            "SELECT count(*) FROM ferry.events WHERE type = 'deferred' AND data->>'reason' LIKE 'no_space:%'")) ?? "?"
        partitionNotes.append("disk full \(ChaosSettings.number(seconds)) s (\(deferred) deferral(s) for no space)")
        say("partition: disk freed; \(deferred) job(s) deferred for no space so far")
    }
}
