import FerryCore

/// What a copy's look at its destination found (``CopyWriter/look(_:source:context:)``).
public enum CopyDestinationLook: Sendable {
    /// Nothing is there: the copy writes a new file.
    case absent
    /// The source's version is there already; what shows it (result details).
    case same([String: JSONValue])
    /// Another file is there. `version` names exactly what was seen (a Dropbox rev), so that a write replacing it
    /// replaces that version and no newer one another writer stored since (`nil` where the provider keeps none).
    case different(version: String?, details: [String: JSONValue])
}
