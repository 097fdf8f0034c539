import FerryCore
import FerryWorker

extension MemoryProvider: ProviderHandlers {
    var accountKind: (any AccountKind)? { MemoryAccountKind() }

    func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        kind == .upload ? MemoryUploadHandler() : nil
    }

    func copyReader(environment: ProviderEnvironment) -> (any CopySourceReader)? { MemoryCopyReader() }

    func copyWriter(environment: ProviderEnvironment) -> (any CopyWriter)? { MemoryCopyWriter() }
}
