extension ContentDigestKind {
    /// MD5 of the whole file, lowercase hex (several services state it; none owns it).
    public static let md5 = ContentDigestKind(name: "md5") { MD5ContentHasher() }
    /// SHA-256 of the whole file, lowercase hex.
    public static let sha256 = ContentDigestKind(name: "sha256") { SHA256ContentHasher() }
}
