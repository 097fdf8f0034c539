import FerryTestSupport
import Testing

/// The command-line side of Flickr fetches, for the suites that still run `ferry` processes
/// (`FlickrFetchProcessTests`, retries, key rotation): `ferry account add` and `ferry enqueue fetch`.
extension FlickrFetchTests {
    /// Adds a Flickr account whose API key is `key`, pointed at `server`, with `ferry account add`.
    static func addAccount(_ name: String, key: String, server: any DevServerControl, db: TestDatabase, verify: Bool = true) async throws {
        let result = try await FerryProcess.run(
            ["account", "add", name, "--provider", "flickr", "--api-key-file", "-",
             "--api-url", server.baseURL + "/services/rest/", "--content-url", server.baseURL + "/flickr/photos"]
                + (verify ? [] : ["--no-verify"]),
            databaseURL: db.url, stdin: key + "\n", environment: DropboxAccounts.environment)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// `ferry enqueue fetch ARGUMENTS…`; answers the last line it printed (the job id).
    static func enqueue(_ db: TestDatabase, _ arguments: [String]) async throws -> String {
        let result = try await FerryProcess.run(["enqueue", "fetch"] + arguments, databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        return result.lines.last ?? ""
    }
}
