import FerryCore
import FerryProviders
import FerryStore

/// The copy readers of every provider a worker runs, by URI scheme: a copy finds its source's reader by the
/// scheme of its source text, so copies work between any two providers that read and write, with no code per pair.
public struct CopyReaders: Sendable {
    let byScheme: [String: (provider: String, reader: any CopySourceReader)]

    /// The readers of every provider in `registry` that declares one.
    init(registry: ProviderRegistry, environment: ProviderEnvironment) {
        var byScheme = [String: (provider: String, reader: any CopySourceReader)]()
        for provider in registry.providers {
            guard let plugin = provider as? any ProviderHandlers, let reader = plugin.copyReader(environment: environment) else {
                continue
            }
            for scheme in provider.schemes { byScheme[scheme] = (provider.name, reader) }
        }
        self.byScheme = byScheme
    }

    /// The copy's source details and the reader of its source, checked against the source's text (a raw event
    /// could pair them otherwise).
    func source(of job: ClaimedJob) throws -> (details: CopySourceDetails, reader: any CopySourceReader) {
        guard let value = (try? JSONValue.parse(job.spec))?[CopySourceDetails.specKey],
            let from = try? JSONValue.decode(CopySourceDetails.self, from: value.jsonText)
        else {
            throw JobFailure.permanent("bad_details", "the copy job does not say how to read its source")
        }
        guard let scheme = EndpointSyntax.scheme(of: job.source), let (provider, reader) = byScheme[scheme] else {
            throw JobFailure.permanent("bad_details", "this worker cannot read the copy's source")
        }
        guard provider == from.provider else {
            throw JobFailure.permanent("bad_details", "the copy's source is not a \(from.provider) location")
        }
        guard try reader.account(of: job.source) == from.account else {
            throw JobFailure.permanent("bad_details", "the copy's source account does not match its source")
        }
        return (from, reader)
    }
}
