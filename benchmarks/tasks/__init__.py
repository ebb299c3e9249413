"""The task sets the runners use and their builders: one-file bug fixes, fixes on real projects, real
commits to review, bugs no test shows. They run no model."""
