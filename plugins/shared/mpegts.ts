/** MPEG-TS as the built-in transport outputs multiplex into (core/sdk StreamMux): the container codecs declare as `mpegts`. */
import type { StreamMux } from '../../core/sdk';

export const MPEG_TS: StreamMux = Object.freeze({ container: 'mpegts', label: 'MPEG-TS' });
