import FuzzSupport

FuzzDriver.run { data, size in fuzzGeoClueValues(data, size) }
