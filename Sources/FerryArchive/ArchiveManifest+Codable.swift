import FerryStore

/// The manifest's JSON is one flat object: ``ArchiveManifest/facts`` are fields beside `format`, `file` and the
/// rest (the format files on disk already have), so the facts are coded into the same object.
extension ArchiveManifest: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(Int.self, forKey: .format)
        archiveID = try container.decode(String.self, forKey: .archiveID)
        file = try container.decode(String.self, forKey: .file)
        facts = try ArchiveFacts(from: decoder)
        finishedBefore = try container.decode(String.self, forKey: .finishedBefore)
        createdAt = try container.decode(String.self, forKey: .createdAt)
        signature = try container.decodeIfPresent(String.self, forKey: .signature)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(archiveID, forKey: .archiveID)
        try container.encode(file, forKey: .file)
        try container.encode(finishedBefore, forKey: .finishedBefore)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(signature, forKey: .signature)
        try facts.encode(to: encoder)
    }
}
