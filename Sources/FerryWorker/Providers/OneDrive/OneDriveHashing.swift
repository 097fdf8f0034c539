import FerryOneDrive
import Foundation

extension QuickXorHash: ContentHasher {
    public func finalize() -> String { base64() }
}

extension ContentDigestKind {
    /// OneDrive's `quickXorHash`: computed while a download streams, kept by other providers' copies under this name.
    static let oneDriveQuickXor = ContentDigestKind(name: "onedrive-quickxor") { QuickXorHash() }
}

/// QuickXorHash of an upload's source file, read through the handle the upload opened. Blocking: call through
/// `BlockingIO`.
enum OneDriveLocalHash {
    static func quickXor(of file: OwnedFile, size: Int64) throws -> String? {
        var hasher = QuickXorHash()
        guard try file.readPieces(size: size, { hasher.update($0) }) else { return nil }
        return hasher.base64()
    }
}
