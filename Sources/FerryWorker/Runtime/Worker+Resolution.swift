import FerryCore
import FerryProviders
import FerryStore
import Foundation
import Logging

extension Worker {
    /// Settles a job enqueued from SQL (`ferry.enqueue`) before its first run: the same validation as
    /// `ferry enqueue` (provider syntax and options, the upload source's size, modification time and inode as this
    /// machine sees them), recorded as a `resolved` event under the claim's lease so every later attempt sees
    /// the canonical job. A job that does not validate fails for good, naming the field and the fix.
    ///
    /// - Returns: the job as settled, or `nil` when the claim was lost meanwhile (nothing may be written).
    func resolve(_ job: ClaimedJob, registry: ProviderRegistry, logger: Logger) async throws -> ClaimedJob? {
        let spec = (try? JSONValue.parse(job.spec)) ?? .object([:])
        var options = [String: OptionValue]()
        for (name, value) in spec["unresolved"]?["options"]?.objectValue ?? [:] where value != .null {
            options[name] = .json(value)
        }
        // The account named in ferry.enqueue's options is the provider's `account` option where it has one
        // (Flickr); an endpoint that names its account (dropbox:ACCOUNT:/…) carries it already.
        let remote = job.kind == .upload ? job.destination : job.source
        if let account = job.account, options["account"] == nil,
            registry.provider(for: remote)?.options(for: job.kind).contains(where: { $0.name == "account" }) == true
        {
            options["account"] = .json(.string(account))
        }
        let request = JobRequest(
            kind: job.kind, source: job.source, to: job.destination, queue: job.queue, priority: Int64(job.priority),
            maxAttempts: Int64(job.maxAttempts), options: options)
        if job.kind == .upload {
            // The source's facts land in the job's events: look only at a source the roots allow, by its real path.
            let (roots, source) = (configuration.localRoots, job.source)
            do {
                _ = try await BlockingIO.run { try roots.openSource(source) }
            } catch let failure as JobFailure where ["outside_local_roots", "unsafe_path"].contains(failure.code) {
                throw failure
            } catch {
                // Missing or unreadable: validation below names it as for the CLI.
            }
        }
        let settled: JobSpec
        do {
            settled = try request.validated(
                jobID: job.jobID, now: Date(), currentDirectory: "/", inspectFile: LocalFileInspector.examine,
                providers: registry)
        } catch {
            throw JobFailure.permanent("invalid_job", "the job enqueued from SQL does not validate: \(error)")
        }
        var account = settled.account
        if let provider = settled.accountProvider, account != nil || settled.usesOnlyAccount {
            do {
                account = try await store.settleAccount(named: account, provider: provider)
            } catch let error as FerryStoreError {
                throw JobFailure.permanent("invalid_job", "the job enqueued from SQL names no usable account: \(error)")
            }
        }
        if let source = settled.sourceAccount, let provider = settled.sourceAccountProvider {
            // A copy's source account must exist and be of the source's provider, as at enqueue.
            do {
                _ = try await store.settleAccount(named: source, provider: provider)
            } catch let error as FerryStoreError {
                throw JobFailure.permanent("invalid_job", "the job enqueued from SQL names no usable source account: \(error)")
            }
        }
        var data: [String: JSONValue] = [
            "source": .string(settled.source), "destination": .string(settled.destination), "spec": .object(settled.details),
        ]
        if let account { data["account"] = .string(account) }
        if let bytes = settled.bytesTotal { data["bytes_total"] = .int(bytes) }
        let (accepted, _) = try await store.record([JobOutcome(jobID: job.jobID, lease: job.lease, type: .resolved, data: data)])
        guard accepted.contains(job.jobID) else { return nil }
        logger.info("job from SQL resolved", metadata: ["source": "\(settled.source)", "destination": "\(settled.destination)"])
        var resolved = job
        resolved.source = settled.source
        resolved.destination = settled.destination
        resolved.account = account ?? job.account
        resolved.spec = JSONValue.object(settled.details).jsonText
        resolved.bytesTotal = settled.bytesTotal ?? job.bytesTotal
        return resolved
    }

    /// Whether `job` was enqueued from SQL and not settled yet.
    static func isUnresolved(_ job: ClaimedJob) -> Bool {
        // Cheap test first: every settled spec lacks the marker.
        job.spec.contains("\"unresolved\"") && (try? JSONValue.parse(job.spec))?["unresolved"] != nil
    }
}
