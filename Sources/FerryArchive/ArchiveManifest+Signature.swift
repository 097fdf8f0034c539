extension ArchiveManifest {
    /// What the signature covers: every fact a restore checks the file against (not the file's name, which may
    /// change when files move).
    var signedText: String {
        [
            "ferry-archive-manifest.v1", "format=\(format)", "archive_id=\(archiveID.lowercased())",
            "sha256=\(facts.sha256.lowercased())", "bytes=\(facts.bytes)", "jobs=\(facts.jobs)", "events=\(facts.events)",
            "first_position=\(facts.firstPosition.map(String.init) ?? "")",
            "last_position=\(facts.lastPosition.map(String.init) ?? "")", "finished_before=\(finishedBefore)",
        ].joined(separator: "\n")
    }

    /// The manifest with its signature under `key`.
    public func signed(with key: ArchiveSigningKey) -> ArchiveManifest {
        var manifest = self
        manifest.signature = key.sign(signedText)
        return manifest
    }

    /// True when the manifest carries a signature and it is valid under `key`.
    public func hasValidSignature(_ key: ArchiveSigningKey) -> Bool {
        signature.map { key.verify($0, for: signedText) } ?? false
    }
}
