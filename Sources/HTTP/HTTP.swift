// The HTTP layer; see ../shared/design/ARCHITECTURE.md.
