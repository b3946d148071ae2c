import Foundation

extension CompositionPlan {
    /// A plan for `target`: file i in tile i of `grid` (column i % columns, row i / columns), each filling its tile,
    /// at the target's size and `frameRate`; starts, gains and pans at their defaults.
    public init(
        files: [URL], grid: GridLayout, target: PublishingTarget, frameRate: FrameRate = FrameRate(frames: 30)
    ) {
        self.init(files: files, grid: grid, size: target.size, scaling: .fill, frameRate: frameRate)
        self.target = target
    }

    /// Makes this plan one for `target` (a board's plan, a plan file's): the target's size, every take filling its
    /// tile, and ``target`` set. The frame rate is kept: ``validated()`` refuses one outside the target's range.
    public mutating func shape(for target: PublishingTarget) {
        self.target = target
        size = target.size
        for index in takes.indices { takes[index].scaling = .fill }
    }

    /// Throws when the plan contradicts `target`: another size, a frame rate outside its range, CRF 0 (lossless,
    /// which is not High profile), or a take fitted rather than filling its tile.
    func check(against target: PublishingTarget) throws(CompositionPlanError) {
        let name = "target \(target.rawValue)"
        guard size == target.size else {
            throw CompositionPlanError("\(name): the output size must be \(target.size), got \(size)")
        }
        let range = target.frameRateRange
        guard range.contains(frameRate.framesPerSecond), target.level(at: frameRate) != nil else {
            throw CompositionPlanError(
                "\(name): the frame rate must be \(Int(range.lowerBound))-\(Int(range.upperBound)) frames per "
                    + "second, got \(frameRate)")
        }
        guard video.constantRateFactor > 0 else {
            throw CompositionPlanError(
                "\(name): CRF 0 is lossless, which H.264 High cannot be; use a CRF from 1 to 51")
        }
        if let index = takes.firstIndex(where: { $0.scaling != .fill }) {
            throw CompositionPlanError(
                canvas: takes[index].canvasIndex ?? index,
                "\(name) fills the 9:16 frame, so every take fills its tile; scaling fit is refused")
        }
    }
}
