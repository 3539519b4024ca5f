"""The timeline: instants, their states and files, and commit metadata."""
