import Logging
Log.info("relaydeckd")
