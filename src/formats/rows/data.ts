import type { FormatRow } from '../types.js';

// Databases, columnar and scientific data, geodata, calendars and other structured records.
export const DATA_ROWS: FormatRow[] = [
  [
    'sqlite',
    'SQLite database',
    'data',
    'application/vnd.sqlite3',
    ['sqlite', 'sqlite3', 'db', 'db3'],
    ['sqlite3'],
  ],
  ['avro', 'Apache Avro data file', 'data', 'application/avro'],
  ['hdf5', 'HDF5 data', 'data', 'application/x-hdf5', ['h5', 'hdf5', 'he5'], ['h5']],
  ['netcdf', 'NetCDF data', 'data', 'application/x-netcdf', ['nc', 'cdf']],
  ['npy', 'NumPy array', 'data', 'application/x-npy', ['npy'], ['numpy']],
  ['geojson', 'GeoJSON', 'data', 'application/geo+json'],
  ['gpx', 'GPS Exchange track', 'data', 'application/gpx+xml'],
  ['kml', 'KML geodata', 'data', 'application/vnd.google-earth.kml+xml'],
  ['kmz', 'KMZ geodata (ZIP)', 'data', 'application/vnd.google-earth.kmz'],
  ['plist', 'Property list', 'data', 'application/x-plist', ['plist'], ['bplist']],
  ['ics', 'iCalendar', 'data', 'text/calendar', ['ics', 'ical', 'ifb'], ['ical', 'icalendar']],
  ['vcf', 'vCard', 'data', 'text/vcard', ['vcf', 'vcard'], ['vcard']],
  ['mbox', 'Mailbox (mbox)', 'data', 'application/mbox'],
  ['torrent', 'BitTorrent metainfo', 'data', 'application/x-bittorrent'],
  ['pcap', 'Packet capture (pcap)', 'data', 'application/vnd.tcpdump.pcap', ['pcap', 'cap']],
  ['pcapng', 'Packet capture (pcapng)', 'data', 'application/x-pcapng'],
  ['lnk', 'Windows shortcut', 'data', 'application/x-ms-shortcut'],
  ['opml', 'OPML outline', 'data', 'text/x-opml'],
  ['rss', 'RSS feed', 'data', 'application/rss+xml'],
  ['atom', 'Atom feed', 'data', 'application/atom+xml'],
];
