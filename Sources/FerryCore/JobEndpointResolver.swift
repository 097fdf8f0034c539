import Foundation

/// Finds the provider of a job's remote side and lets it check that side. Implemented by the worker
/// module's provider registry; validation in this module knows no provider by name.
public protocol JobEndpointResolver: Sendable {
    /// Every option name any provider declares: JSON Lines accepts them as top-level fields too.
    var optionNames: Set<String> { get }
    /// Checks the options and the remote side of one job, or names the problem.
    func resolve(
        kind: JobKind, remote: String, local: String, options: [String: OptionValue], jobID: UUID, line: Int?
    ) throws(ValidationIssue) -> ResolvedEndpoint
    /// Checks both sides and the options of one copy between providers, or names the problem.
    func resolveCopy(
        source: String, destination: String, options: [String: OptionValue], jobID: UUID, line: Int?
    ) throws(ValidationIssue) -> ResolvedEndpoint
}
