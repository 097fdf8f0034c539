import FerryCore

/// How the providers with ``AccountItemLocation``s resolve the endpoints they resolve alike.
extension AccountItemLocation {
    /// An upload's destination: the path, with the local file's name added when it names a folder (ends in `/`);
    /// `idNoun` ("a file id") names what an upload cannot be written to in the refusal.
    public func uploadPath(_ request: EndpointRequest, idNoun: String) throws(ValidationIssue) -> String {
        guard let path else {
            throw request.issue(
                request.remoteField, "an upload names a path, not \(idNoun)",
                "write \(Self.scheme):\(account):/folder/ (a folder ends in /)")
        }
        return path.hasSuffix("/") ? path + request.localName : path
    }

    /// This location as a fetch source into `destination` (the local target). Whether the item is a folder is only
    /// known to the worker, so every fetch gets a batch for its children.
    public func fetchEndpoint(provider: String, destination: String, details: some Encodable) -> ResolvedEndpoint {
        ResolvedEndpoint(
            source: text, destination: destination, account: account, accountProvider: provider, fansOut: true, typedDetails: details)
    }

    /// This location as a copy source: a folder (path ending in `/`) is listed whole, subfolders included; a file by
    /// itself.
    public func copySourceEndpoint(provider: String) -> ResolvedEndpoint {
        let folder = path?.hasSuffix("/") == true
        return ResolvedEndpoint(
            source: text, destination: "", account: account, accountProvider: provider, fansOut: folder,
            typedDetails: CopySourceDetails(provider: provider, account: account, folder: folder ? true : nil))
    }
}
