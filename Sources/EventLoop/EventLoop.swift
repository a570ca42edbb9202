// The EventLoop layer; see ../shared/design/ARCHITECTURE.md.
