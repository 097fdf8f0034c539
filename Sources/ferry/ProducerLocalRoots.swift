import FerryCore
import FerryWorker
import Foundation

/// The workers' local roots as the producer states them: `FERRY_ENQUEUE_LOCAL_ROOTS` (colon-separated, as the
/// workers' `FERRY_LOCAL_ROOTS`). When it is set (and its folders exist here), enqueue refuses a fetch's target or
/// an upload's source outside them at once, with the fix, instead of writing a job that fails on the worker with
/// `outside_local_roots`. Unset, nothing is checked: workers do not publish their roots, and a producer on
/// another machine cannot know them. (Not `FERRY_LOCAL_ROOTS` itself: a shell that sets it for a worker may
/// enqueue for workers elsewhere.)
enum ProducerLocalRoots {
    static let current: LocalRoots? = {
        let directories = (ProcessInfo.processInfo.environment["FERRY_ENQUEUE_LOCAL_ROOTS"] ?? "")
            .split(separator: ":").map(String.init).filter { !$0.isEmpty }
        guard !directories.isEmpty else { return nil }
        return try? LocalRoots(directories: directories)
    }()

    /// Refuses `spec` when its local path lies outside the roots.
    static func check(_ spec: JobSpec, line: Int?, roots: LocalRoots? = current) throws(ValidationIssue) {
        guard let roots else { return }
        let local: (path: String, field: String, role: String)? =
            switch spec.kind {
            case .fetch: EndpointSyntax.scheme(of: spec.destination) == nil ? (spec.destination, "to", "destination") : nil
            case .upload: EndpointSyntax.scheme(of: spec.source) == nil ? (spec.source, "source", "source") : nil
            case .copy: nil
            }
        guard let local else { return }
        do {
            try roots.check(local.path, role: local.role)
        } catch {
            throw ValidationIssue(
                line: line, field: local.field,
                problem: "\(local.path) is outside the workers' local roots (FERRY_ENQUEUE_LOCAL_ROOTS: \(roots.summary)); a worker would refuse the job",
                fix: "name a path inside \(roots.summary), or run the workers with --local-root for that folder")
        }
    }
}
