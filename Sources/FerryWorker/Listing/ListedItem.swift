/// An item of a listed folder, as the breadth-first walks of providers that list one folder at a time read it.
protocol ListedItem: Sendable {
    var id: String { get }
    var name: String { get }
    var isFolder: Bool { get }
}
