// The Relaydeck layer; see ../shared/design/ARCHITECTURE.md.
