// Never compiled: analysis stops at the visibility of its dependency.
