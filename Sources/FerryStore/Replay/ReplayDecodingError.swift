/// A COPY row of a replay did not have the shape its statement produces (a bug, never user data).
struct ReplayDecodingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
