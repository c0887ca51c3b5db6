/// <reference types="svelte" />
/// <reference types="vite/client" />

/** True only in the e2e build (CAIRN_TEST_HOOKS=1, see vite.config.ts). */
declare const __CAIRN_TEST_HOOKS__: boolean;

type CairnPickPurpose = 'source' | 'repository' | 'restore';

interface Window {
  /** e2e only: returns the directory a real user would pick in showDirectoryPicker(). */
  __cairnTestPickDirectory?: (purpose: CairnPickPurpose) => Promise<FileSystemDirectoryHandle>;
  /** e2e only: an operation that took the slot waits for this before it starts its work. */
  __cairnTestOperationGate?: (kind: string) => Promise<void>;
  /** e2e only: awaited on each progress step of the offline cache's fill (holds the fill while pending). */
  __cairnTestOfflineFillGate?: (p: import('../workers/api').OfflineCacheProgress) => Promise<void> | void;
}

// File System Access parts lib.dom does not declare yet (Chromium only; fsa.ts checks for them).
interface CairnDirectoryPickerOptions {
  id?: string;
  mode?: 'read' | 'readwrite';
  startIn?: 'desktop' | 'documents' | 'downloads' | 'music' | 'pictures' | 'videos' | FileSystemHandle;
}
interface CairnSaveFilePickerOptions {
  id?: string;
  suggestedName?: string;
  startIn?: CairnDirectoryPickerOptions['startIn'];
}
interface Window {
  showDirectoryPicker?: (opts?: CairnDirectoryPickerOptions) => Promise<FileSystemDirectoryHandle>;
  showSaveFilePicker?: (opts?: CairnSaveFilePickerOptions) => Promise<FileSystemFileHandle>;
}
