/// The typed details of a memory upload, as the job's spec keeps them.
struct MemoryUploadDetails: Codable, Sendable, Equatable {
    var label: String?
    var copies: Int64
    var ifChanged: Bool?

    enum CodingKeys: String, CodingKey {
        case label, copies
        case ifChanged = "if_changed"
    }
}
