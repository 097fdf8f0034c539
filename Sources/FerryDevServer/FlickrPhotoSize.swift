/// The photo sizes of Flickr's static host, by URL suffix (`{id}_{secret}_{suffix}.jpg`;
/// no suffix is the 500 px "medium" size).
enum FlickrPhotoSize: String, CaseIterable, Sendable {
    case square75 = "s"
    case square150 = "q"
    case thumbnail = "t"
    case small240 = "m"
    case small320 = "n"
    case small400 = "w"
    case medium500 = ""
    case medium640 = "z"
    case medium800 = "c"
    case large1024 = "b"

    /// `nil` for suffixes Flickr does not have (or the dev server does not serve).
    init?(suffix: String?) {
        self.init(rawValue: suffix ?? "")
    }

    /// Length of the longest side (squares are cropped to this on both sides).
    var longestSide: Int {
        switch self {
        case .square75: return 75
        case .square150: return 150
        case .thumbnail: return 100
        case .small240: return 240
        case .small320: return 320
        case .small400: return 400
        case .medium500: return 500
        case .medium640: return 640
        case .medium800: return 800
        case .large1024: return 1024
        }
    }

    var isSquare: Bool { self == .square75 || self == .square150 }

    /// The `extras` label (`url_m`, `height_m`, `width_m`) of this size in API responses.
    var extrasLabel: String {
        switch self {
        case .square75: return "sq"
        case .square150: return "q"
        case .thumbnail: return "t"
        case .small240: return "s"
        case .small320: return "n"
        case .small400: return "w"
        case .medium500: return "m"
        case .medium640: return "z"
        case .medium800: return "c"
        case .large1024: return "l"
        }
    }
}
