/** The built-in plugins, in the order the registry asks them (the camera before the file source: both take file://). */
import type { Plugin } from '../core/sdk';
import av1 from './codecs/av1';
import codec2 from './codecs/codec2';
import h264 from './codecs/h264';
import h265 from './codecs/h265';
import dashOutput from './outputs/dash';
import fileOutput from './outputs/file';
import hlsOutput from './outputs/hls';
import rtmpOutput from './outputs/rtmp';
import rtspOutput from './outputs/rtsp';
import srtOutput from './outputs/srt';
import tcpOutput from './outputs/tcp';
import udpOutput from './outputs/udp';
import fileSource from './sources/file';
import rtspSource from './sources/rtsp';
import srtSource from './sources/srt';
import testSource from './sources/test';
import udpSource from './sources/udp';
import v4l2Source from './sources/v4l2';

export const builtinPlugins: readonly Plugin[] = [
  testSource, v4l2Source, fileSource, rtspSource, udpSource, srtSource,
  h264, h265, av1, codec2,
  rtspOutput, udpOutput, tcpOutput, fileOutput, hlsOutput, dashOutput, rtmpOutput, srtOutput,
];
