import FerryCore

/// The picture drawn by ``ThumbnailRenderer/photo(width:height:seed:)``, in coordinates relative to the
/// image size so every size of one photo shows the same scene.
struct PhotoScene {
    var width: Double
    var height: Double
    var skyLevel: Int
    var gradient: Int
    var horizon: Double
    var sunX: Double
    var sunY: Double
    var sunRadius: Double
    var skyTint: (cb: Int, cr: Int)
    var groundTint: (cb: Int, cr: Int)

    init(seed: UInt64, width: Int, height: Int) {
        var random = SplitMix64(seed: seed)
        func next(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        self.width = Double(width)
        self.height = Double(height)
        skyLevel = next(120...200)
        gradient = next(-60...60)
        horizon = Double(next(50...80)) / 100
        sunX = Double(next(15...85)) / 100
        sunY = Double(next(10...40)) / 100
        sunRadius = Double(next(6...16)) / 100
        skyTint = (next(120...180), next(90...140))
        groundTint = (next(80...120), next(90...150))
    }

    func colour(x: Int, y: Int) -> (y: Int, cb: Int, cr: Int) {
        let u = Double(x) / width
        let v = Double(y) / height
        let dx = (u - sunX) * width
        let dy = (v - sunY) * height
        let radius = sunRadius * min(width, height)
        if dx * dx + dy * dy < radius * radius {
            return (235, 90, 170)
        }
        if v > horizon {
            return (skyLevel - 90 + Int(Double(gradient) * u), groundTint.cb, groundTint.cr)
        }
        return (skyLevel + Int(Double(gradient) * v), skyTint.cb, skyTint.cr)
    }
}
