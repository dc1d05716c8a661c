/** The built-in plugins, in the order the registry asks them. */
import type { Plugin } from '../core/sdk';
import h264 from './codecs/h264';
import fileOutput from './outputs/file';
import udpOutput from './outputs/udp';
import testSource from './sources/test';

export const builtinPlugins: readonly Plugin[] = [testSource, h264, fileOutput, udpOutput];
