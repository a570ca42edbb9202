// The SQLite layer; see ../shared/design/ARCHITECTURE.md.
