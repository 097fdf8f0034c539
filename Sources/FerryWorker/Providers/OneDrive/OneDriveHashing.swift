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
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(Int64(buffer.count), size - offset))]), at: offset)
            guard count > 0 else { return nil }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
        }
        return hasher.base64()
    }
}
