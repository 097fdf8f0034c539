import FerryCore

/// A seeded Flickr user: the photo stream is generated from these three values.
struct FlickrUser: Sendable, Equatable {
    var userID: String
    var count: Int
    /// Real Flickr sends `total` as a string for some accounts and as a number for others.
    var totalAsString: Bool

    var json: JSONValue {
        .object(["user_id": .string(userID), "count": .int(Int64(count)), "total_as": .string(totalAsString ? "string" : "number")])
    }

    init(userID: String, count: Int, totalAsString: Bool) {
        self.userID = userID
        self.count = count
        self.totalAsString = totalAsString
    }

    init?(json: JSONValue) {
        guard let userID = json["user_id"]?.stringValue, let count = json["count"]?.intValue else { return nil }
        self.init(userID: userID, count: Int(count), totalAsString: json["total_as"]?.stringValue != "number")
    }
}
