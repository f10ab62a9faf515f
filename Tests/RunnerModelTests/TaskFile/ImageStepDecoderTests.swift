import Testing

@testable import RunnerModel

@Suite struct ImageStepDecoderTests {
  @Test func scalarBareAndMappingFormsAllRead() throws {
    let graph = try loadGraph(
      """
      tasks:
        photo:
          image:
            - load: in.jpg
            - grayscale
            - sepia: {}
            - blur: 5
            - resize: { width: 320 }
            - rotate: -90
            - save: { path: out/a.png }
      """)
    guard case .image(let steps) = graph[0].action else { Issue.record("not an image task"); return }
    #expect(
      steps.map(\.kind) == [
        .load(.path("in.jpg"), maxPixels: ImageStep.defaultMaxPixels), .grayscale, .sepia(amount: 1), .blur(sigma: 5),
        .resize(width: 320, height: nil, scale: nil, filter: .lanczos3), .rotate(degrees: 270),
        .save(path: "out/a.png", quality: 85),
      ])
  }

  @Test func imageInputMustBeUnambiguous() {
    let none = loadError("tasks:\n  a: {image: [grayscale]}\n")
    #expect(none.contains("none of its dependencies is an image task"))
    let several = loadError(
      "tasks:\n  p: {image: [{load: a.png}]}\n  q: {image: [{load: b.png}]}\n  r: {deps: [p, q], image: [grayscale]}\n")
    #expect(several.contains("several image dependencies (p, q)"))
    _ = try? loadGraph(
      "tasks:\n  p: {image: [{load: a.png}]}\n  q: {image: [{load: b.png}]}\n  r: {deps: [p, q], image: [{load: {from: q}}]}\n"
    )
    #expect(
      loadErrors(
        "tasks:\n  p: {image: [{load: a.png}]}\n  q: {image: [{load: b.png}]}\n  r: {deps: [p, q], image: [{load: {from: q}}]}\n"
      ).isEmpty)
  }

  @Test func twoTasksSavingOnePathIsAnError() {
    let text =
      "tasks:\n  a: {image: [{load: x.png}, {save: out/y.png}]}\n  b: {image: [{load: x.png}, {save: ./out/y.png}]}\n"
    #expect(loadError(text).contains("saves to './out/y.png', which task 'a' saves to too"))
  }

  @Test(arguments: [
    ("- blurr: 3", "unknown key 'blurr' in 'image' of task 't' (did you mean 'blur'?)"),
    ("- rotate: 45", "turns by 90, 180 or 270 degrees, found 45"),
    ("- save: out.gif", "saves .png, .jpg or .jpeg files, found 'out.gif'"),
    ("- resize: {}", "needs 'width' and/or 'height', or 'scale' alone"),
    ("- sepia: 2", "must be between 0.0 and 1.0, found 2"),
    ("- crop: {x: 1}", "needs 'y'"),
  ])
  func badStepsAreReported(step: String, message: String) {
    let error = loadError("tasks:\n  s: {image: [{load: a.png}]}\n  t:\n    deps: [s]\n    image:\n      \(step)\n")
    #expect(error.contains(message), "\(error)")
  }
}
