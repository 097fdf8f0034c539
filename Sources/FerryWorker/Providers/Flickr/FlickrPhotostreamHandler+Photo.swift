import FerryCore
import FerryFlickr
import FerryProviders
import FerryStore

extension FlickrPhotostreamHandler {
    /// Fetches one photo a listing found (a child: `flickr:USER_ID/photo/PHOTO_ID`, ``FlickrPhotoReference`` in its
    /// spec). The URL is built now, from the account's photo base as it is at this attempt and the photo's checked
    /// parts, each one path-safe: a retry after `ferry account update --content-url` reaches the new host, and a
    /// forged child can reach nothing but a photo path under the account's base.
    func fetchPhoto(_ job: ClaimedJob, details: FlickrFetchDetails, photo: FlickrPhotoReference, context: JobContext) async throws -> JobResult {
        guard let ids = FlickrPhotoReference.ids(inSource: job.source), photo.isValid(userID: ids.userID, photoID: ids.photoID) else {
            throw JobFailure.permanent(
                "bad_spec", "the Flickr photo job's source or photo details are not a Flickr photo (flickr:USER_ID/photo/ID; ids, server and secret of letters and digits)")
        }
        let (_, _, endpoints) = try await credentials(details.account ?? job.account)
        let info = FlickrPhotoInfo(id: ids.photoID, owner: ids.userID, secret: photo.secret, server: photo.server, title: "")
        let url = FlickrClient.photoURL(info, size: photo.size, base: endpoints.photos)
        return try await HTTPFetchHandler(httpClient: httpClient).download(job, url: url, root: details.root, sha256: nil, context: context)
    }
}
