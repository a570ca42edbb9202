// The JSON layer; see ../shared/design/ARCHITECTURE.md.
