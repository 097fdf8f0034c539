import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files of a run, generated from the seed: photo-sized files (256 KiB to 6 MiB) and, for a share of them,
/// files of tens of MiB that go through upload sessions and ranged downloads.
struct Corpus: Sendable {
    let files: [CorpusFile]

    var uploads: [CorpusFile] { files.filter { $0.role == .upload } }
    var fetches: [CorpusFile] { files.filter { $0.role != .upload } }
    var totalBytes: Int { files.reduce(0) { $0 + $1.size } }

    /// Plans the files (names, sizes, roles) without writing them.
    static func plan(settings: ChaosSettings, directory: String) -> Corpus {
        var sizes = SeededGenerator.stream(settings.seed, "sizes")
        let mib = 1024 * 1024
        let bigLow = min(12 * mib, settings.maxSizeMiB * mib)
        func size(big: Bool) -> Int {
            big ? Int.random(in: bigLow...(settings.maxSizeMiB * mib), using: &sizes) : Int.random(in: (256 * 1024)...(6 * mib), using: &sizes)
        }
        func bigCount(_ n: Int) -> Int { n == 0 ? 0 : max(1, Int((Double(n) * settings.bigShare).rounded())) }

        var files: [CorpusFile] = []
        let bigUploads = bigCount(settings.uploads)
        for index in 0..<settings.uploads {
            // Big files first, so the first wave already has upload sessions in flight.
            let big = index < bigUploads
            let name = String(format: big ? "file-%04d.bin" : "photo-%04d.jpg", index)
            files.append(CorpusFile(
                role: .upload, name: name, size: size(big: big), localPath: directory + "/uploads/" + name,
                remotePath: "/uploads/" + name, fetchedPath: nil))
        }
        let folder = settings.fetches >= 5 ? min(12, settings.fetches / 5) : 0
        let web = (settings.fetches - folder) / 3
        let dropbox = settings.fetches - folder - web
        let bigDropbox = bigCount(dropbox)
        let bigWeb = web >= 3 ? bigCount(web) : 0
        for index in 0..<dropbox {
            let big = index < bigDropbox
            let name = String(format: big ? "fetch-%04d.bin" : "fetch-%04d.jpg", index)
            files.append(CorpusFile(
                role: .dropboxFetch, name: name, size: size(big: big), localPath: directory + "/fetch-sources/" + name,
                remotePath: "/fetch/" + name, fetchedPath: directory + "/fetched/dropbox/" + name))
        }
        for index in 0..<web {
            let big = index < bigWeb
            let name = String(format: big ? "web-%04d.bin" : "web-%04d.jpg", index)
            files.append(CorpusFile(
                role: .webFetch, name: name, size: size(big: big), localPath: directory + "/fetch-sources/" + name,
                remotePath: "chaos/" + name, fetchedPath: directory + "/fetched/web/" + name))
        }
        for index in 0..<folder {
            let name = String(format: "folder-%04d.jpg", index)
            files.append(CorpusFile(
                role: .folderFetch, name: name, size: size(big: false), localPath: directory + "/fetch-sources/" + name,
                remotePath: "/folder/" + name, fetchedPath: directory + "/fetched/folder/" + name))
        }
        return Corpus(files: files)
    }

    /// Writes every file's seeded bytes.
    func write(seed: UInt64) throws {
        for file in files {
            try FileManager.default.createDirectory(
                atPath: (file.localPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Self.writeSeeded(path: file.localPath, size: file.size, generator: SeededGenerator.stream(seed, "bytes " + file.name))
        }
    }

    private static func writeSeeded(path: String, size: Int, generator: SeededGenerator) throws {
        var generator = generator
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ChaosError("cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        let words = 128 * 1024
        var buffer = [UInt64](repeating: 0, count: words)
        var left = size
        while left > 0 {
            for index in 0..<words { buffer[index] = generator.next() }
            let count = min(left, words * 8)
            let written = buffer.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, count) }
            guard written == count else { throw ChaosError("cannot write \(path): errno \(errno)") }
            left -= count
        }
    }
}
