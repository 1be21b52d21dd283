import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// findBy*/waitFor wait for a condition; their 1 s default turned into a verdict on machine speed when a whole page or
// wizard renders on a loaded machine. 20 s only detects a hang: a condition that holds returns at once.
configure({ asyncUtilTimeout: 20_000 });
