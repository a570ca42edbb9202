// The API layer; see ../shared/design/ARCHITECTURE.md.
