import { Button } from '@backstage/ui';
import { RiCheckLine, RiFileCopyLine } from '@remixicon/react';
import { useEffect, useState } from 'react';

const WORDS = {
  idle: 'Copy',
  copied: 'Copied',
  refused: 'The browser refused: select and copy',
} as const;

/**
 * Copies `text` to the clipboard: commands and YAML are meant to be pasted, and selecting a scrolled block by hand
 * misses what is out of view. Says "Copied" for a moment, or that the browser refused.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'refused'>('idle');
  useEffect(() => {
    if (state === 'idle') return undefined;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('refused');
    }
  };
  return (
    <Button
      variant="secondary"
      size="small"
      aria-label={label}
      iconStart={
        state === 'copied' ? (
          <RiCheckLine size={16} aria-hidden />
        ) : (
          <RiFileCopyLine size={16} aria-hidden />
        )
      }
      onPress={copy}
    >
      {WORDS[state]}
    </Button>
  );
}
