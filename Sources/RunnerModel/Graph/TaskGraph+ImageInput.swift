extension TaskGraph {
  /// The dependency whose image an image task takes as its input, if it takes one:
  /// `load: { from: NAME }`, or the single image task among its dependencies when its
  /// first step is not a `load`. Load-time checks guarantee there is at most one.
  package func imageInput(of index: Int) -> Int? {
    guard case .image(let steps) = self[index].action, let first = steps.first else { return nil }
    switch first.kind {
    case .load(.dependency(let name), _):
      return self.index(of: name)
    case .load:
      return nil
    default:
      return dependencies[index].first { if case .image = self[$0].action { return true } else { return false } }
    }
  }
}

/// An edge of the selected graph, pointing the way work flows: from the dependency to its dependent.
package struct GraphEdge: Sendable, Equatable {
  package var from: Int
  package var to: Int
  /// True when the dependent takes the dependency's image as its input.
  package var carriesImage: Bool
}

extension GraphSelection {
  /// Edges among selected tasks, ordered by dependent (file order), then as written in `deps`.
  package var edges: [GraphEdge] {
    members.flatMap { node in
      let input = graph.imageInput(of: node)
      return graph.dependencies[node].map { GraphEdge(from: $0, to: node, carriesImage: $0 == input) }
    }
  }
}
