// The Crypto layer; see ../shared/design/ARCHITECTURE.md.
