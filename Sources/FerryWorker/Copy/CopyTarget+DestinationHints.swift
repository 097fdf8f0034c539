import FerryCore
import FerryProviders
import FerryStore
import Logging

extension CopyTarget {
    /// The page's children, each marked `to_absent` in its source details when the destination was listed and
    /// does not hold its file: their first attempts write without a look at the destination first.
    public func hinted(_ children: [FanOutChild], logger: Logger) async -> [FanOutChild] {
        guard let destination, !children.isEmpty else { return children }
        let absent = await destination.absent(destinations: children.map(\.destination), logger: logger)
        guard !absent.isEmpty else { return children }
        return children.map { child in
            guard absent.contains(child.destination), case .object(var from)? = child.details[CopySourceDetails.specKey] else {
                return child
            }
            var hinted = child
            from["to_absent"] = .bool(true)
            hinted.details[CopySourceDetails.specKey] = .object(from)
            return hinted
        }
    }
}
