/// Deterministic photos of seeded users.
extension FlickrPhoto {
    /// Titles cycle through plain, non-ASCII, empty and awkward ones (a slash, quotes, `&`),
    /// the cases a fetcher naming files after titles has to survive.
    private static let titles = [
        "Sunset over the harbour", "Café de Flore", "Zürich Hauptbahnhof", "東京タワー", "Straße im Regen",
        "Ελληνικό νησί", "Москва зимой", "São Paulo à noite", "Smørrebrød 🍞", "", "Before/After",
        "Crème brûlée", "Kraków old town", "“Quoted” <title>", "Fjällräven & friends",
    ]
    private static let servers = ["65535", "65535", "7372", "4028", "2871"]
    private static let shapes = [(1024, 768), (768, 1024), (1024, 683), (1024, 1024), (1024, 576)]

    /// The photo at `index` of `userID`'s stream. Ids descend with the index (newest first,
    /// as Flickr lists them) within a block chosen by the user id.
    static func generate(userID: String, index: Int) -> FlickrPhoto {
        let userBlock = StableHash.of(userID) % 40_000
        let hash = StableHash.of(userID, String(index))
        let secretBits = StableHash.of(userID, String(index), "secret")
        var secret = String(secretBits, radix: 16)
        secret = String(repeating: "0", count: max(0, 16 - secret.count)) + secret
        // One slot more than there are titles: camera-style names are common on Flickr.
        let titleIndex = Int(hash % UInt64(titles.count + 1))
        let title = titleIndex == titles.count ? "IMG_\(1000 + index)" : titles[titleIndex]
        let shape = shapes[Int((hash >> 16) % UInt64(shapes.count))]
        return FlickrPhoto(
            id: String(10_000_000_000 + Int64(userBlock) * 1_000_000 + Int64(999_999 - index)),
            owner: userID,
            secret: String(secret.prefix(10)),
            server: servers[Int((hash >> 32) % UInt64(servers.count))],
            farm: 66,
            title: title,
            index: index,
            width: shape.0,
            height: shape.1,
            uploaded: 1_700_000_000 - Int64(index) * 3_600
        )
    }

    /// Seed of the photo's pixels.
    var pixelSeed: UInt64 { StableHash.of(owner, String(index), "pixels") }
}
