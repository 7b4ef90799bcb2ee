// The package ships no types; this is the one function it exports.
declare module 'html-encoding-sniffer' {
  export default function htmlEncodingSniffer(
    bytes: Uint8Array,
    options?: { xml?: boolean; transportLayerEncodingLabel?: string; defaultEncoding?: string },
  ): string;
}
